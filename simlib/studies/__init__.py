"""Per-paper experiment logic shared by the pipeline's entry points.

One module per reproduced paper (``utrera`` for paper U, ...): what one run
measures, how published numbers are read, how claims are checked. The
generic pieces (engine, policies, metrics, cubes) stay in their own
packages; these modules only combine them the way a paper does.
"""
