"""Discount codes."""

DISCOUNTS = {"WELCOME10": 0.10}


def apply_discount(total: float, code: str) -> float:
    rate = DISCOUNTS.get(code, 0.0)
    return total * (1 - rate)
