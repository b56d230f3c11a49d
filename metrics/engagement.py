"""Logged user actions and how much each counts as engagement: the one home of that vocabulary.

Click logs (OpenSearch User Behavior Insights and plain tables) name each event by an action
such as ``impression``, ``click``, ``add_to_cart`` or ``purchase``; the readers keep the names
exactly as given.  What counts as engagement, and by how much, is an
:class:`EngagementWeights` value: the default gives ``click = 1, add_to_cart = 2,
purchase = 3``; any other action (``impression``, ``search``, ``product_hover``, ...) weighs 0,
i.e. is not an engagement, unless the weights name it.

Weights are finite and non-negative; an action with weight 0 is dropped from the mapping.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

IMPRESSION = "impression"
"""A result shown to the user at a position: the denominator of click-through rates."""
CLICK = "click"
ADD_TO_CART = "add_to_cart"
PURCHASE = "purchase"

UBI_COMMON_ACTIONS = ("click_through", ADD_TO_CART, CLICK, "watch", "view", PURCHASE,
                      IMPRESSION)
"""The action names UBI 1.3's event schema lists as common defaults (any other is allowed)."""


@dataclass(frozen=True)
class EngagementWeights:
    """The weight of each engaged action, sorted by name; unnamed actions weigh 0."""

    weights: tuple[tuple[str, float], ...]

    def __post_init__(self) -> None:
        names = [name for name, _ in self.weights]
        if any(not name or name != name.strip() for name in names):
            raise ValueError(f"action names must be non-empty, without surrounding blanks; "
                             f"got {names}")
        if len(set(names)) != len(names):
            raise ValueError(f"an action is weighted twice: {names}")
        for name, weight in self.weights:
            if not math.isfinite(weight) or weight < 0:
                raise ValueError(f"the weight of {name!r} must be a finite number >= 0; "
                                 f"got {weight!r}")

    @classmethod
    def from_mapping(cls, weights: Mapping[str, float] | Iterable[tuple[str, float]]
                     ) -> EngagementWeights:
        """``{"click": 1, "purchase": 3}`` in any order; zero weights are dropped."""
        pairs = weights.items() if isinstance(weights, Mapping) else weights
        kept = sorted((str(name), float(weight)) for name, weight in pairs)
        for name, weight in kept:
            if not math.isfinite(weight) or weight < 0:
                raise ValueError(f"the weight of {name!r} must be a finite number >= 0; "
                                 f"got {weight!r}")
        return cls(tuple((name, weight) for name, weight in kept if weight > 0))

    @classmethod
    def parse(cls, text: str) -> EngagementWeights:
        """``"click=1,add_to_cart=2,purchase=3"`` (the CLI's option); ``ValueError`` naming the
        bad part otherwise."""
        pairs = []
        for part in text.split(","):
            if not part.strip():
                continue
            name, sep, value = part.partition("=")
            if not sep or not name.strip():
                raise ValueError(f"{part.strip()!r} must be written action=weight")
            try:
                weight = float(value)
            except ValueError:
                raise ValueError(f"the weight in {part.strip()!r} is not a number") from None
            pairs.append((name.strip(), weight))
        if not pairs:
            raise ValueError("no action=weight pairs given")
        return cls.from_mapping(pairs)

    @property
    def actions(self) -> tuple[str, ...]:
        """The actions that count as engagement (weight > 0), by name."""
        return tuple(name for name, _ in self.weights)

    def weight_of(self, action: str) -> float:
        """The weight of one action name (0.0 if the weights do not name it)."""
        for name, weight in self.weights:
            if name == action:
                return weight
        return 0.0

    def weigh(self, actions: pd.Series) -> np.ndarray:
        """The weight of every action in a column (float64; 0.0 for unnamed or missing)."""
        mapping = dict(self.weights)
        return actions.map(mapping).astype("float64").fillna(0.0).to_numpy()

    def describe(self) -> str:
        """``add_to_cart=2, click=1, purchase=3``."""
        return ", ".join(f"{name}={weight:g}" for name, weight in self.weights)


DEFAULT_WEIGHTS = EngagementWeights.from_mapping({CLICK: 1.0, ADD_TO_CART: 2.0, PURCHASE: 3.0})
