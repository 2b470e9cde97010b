"""DataFrames for notebooks: pyarrow tables (what every result is) as pandas or polars.

Neither library is a dependency of cellshare; install one (``pip install 'cellshare[pandas]'``
or ``'cellshare[polars]'``). The conversion is zero-copy where the library allows it.
"""

from __future__ import annotations

import pyarrow as pa


def to_pandas(table: pa.Table):
    """`table` as a pandas DataFrame (needs pandas)."""
    try:
        import pandas  # noqa: F401
    except ImportError:
        raise ImportError("DataFrames as pandas need the 'pandas' package: pip install 'cellshare[pandas]' "
                          "(or use to_polars with 'cellshare[polars]')") from None
    return table.to_pandas()


def to_polars(table: pa.Table):
    """`table` as a polars DataFrame (needs polars)."""
    try:
        import polars
    except ImportError:
        raise ImportError("DataFrames as polars need the 'polars' package: pip install 'cellshare[polars]' "
                          "(or use to_pandas with 'cellshare[pandas]')") from None
    return polars.from_arrow(table)
