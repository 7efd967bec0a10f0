"""A shopping cart."""

from dataclasses import dataclass, field

from shop.pricing import apply_discount


@dataclass
class Item:
    name: str
    price: float
    quantity: int = 1


@dataclass
class Cart:
    items: list[Item] = field(default_factory=list)

    def add(self, item: Item) -> None:
        self.items.append(item)

    def total(self) -> float:
        return sum(item.price for item in self.items)

    def checkout(self, code: str | None = None) -> float:
        total = self.total()
        if code:
            total = apply_discount(total, code)
        return total
