"""Orange3-Relief: non-myopic attribute estimation for Orange (public scripting API)."""
