"""Thin pygls adapters: validate params → call the editor glue / core → dump the result.

The only package (with `ink_ls.server`) that imports pygls.
"""
