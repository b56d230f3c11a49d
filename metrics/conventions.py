"""The names of the DCG conventions — declared once, light to import (the CLI's and the
dashboard's choices are built from these).

* gain of a grade g: ``linear`` g (trec_eval) or ``exponential`` 2^g - 1;
* discount at rank r: ``log2`` 1/log2(r + 1) (trec_eval) or ``reciprocal`` 1/r.

The formulas themselves live in :mod:`metrics.dcg`.
"""

from __future__ import annotations

from typing import Literal, get_args

Gain = Literal["linear", "exponential"]
Discount = Literal["log2", "reciprocal"]
GAINS: tuple[str, ...] = get_args(Gain)
DISCOUNTS: tuple[str, ...] = get_args(Discount)
