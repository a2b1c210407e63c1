"""fanout (seed 000): build R user profiles; each needs the user first, then orders,
preferences and notifications concurrently."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from .common import Params, now_ns
from .sleep_proof import SleepProof

PARAMS = ["requests", "concurrency", "user-ms", "orders-ms", "prefs-ms", "notifications-ms",
          "pool-size"]
FETCH_KINDS = ("user", "orders", "prefs", "notifications")


@dataclass(slots=True, frozen=True)
class User:
    id: int
    name: str


@dataclass(slots=True, frozen=True)
class Order:
    id: str
    item: str


@dataclass(slots=True, frozen=True)
class Preferences:
    dark_mode: bool
    language: str


@dataclass(slots=True, frozen=True)
class Notification:
    id: str
    message: str


@dataclass(slots=True, frozen=True)
class UserProfile:
    user: User
    orders: list[Order]
    preferences: Preferences
    notifications: list[Notification]


class UserService:
    """Mocks the remote calls: each awaits asyncio.sleep, then returns fresh values. Each fetch
    times its own sleep and counts itself in its kind's SleepProof."""

    def __init__(self, user: float, orders: float, prefs: float, notifications: float):
        self.user, self.orders, self.prefs, self.notifications = user, orders, prefs, notifications
        self.reset_proofs()

    def reset_proofs(self) -> None:
        """Fresh proofs for each fetch kind (before each iteration's clock)."""
        self.proofs = {kind: SleepProof() for kind in FETCH_KINDS}
        self._user, self._orders, self._prefs, self._notifications = self.proofs.values()

    async def fetch_user(self, user_id: int) -> User:
        await self._user.sleep(self.user)
        return User(user_id, f"User-{user_id}")

    async def fetch_orders(self, user_id: int) -> list[Order]:
        await self._orders.sleep(self.orders)
        return [Order("O1", "Item A"), Order("O2", "Item B")]

    async def fetch_preferences(self, user_id: int) -> Preferences:
        await self._prefs.sleep(self.prefs)
        return Preferences(True, "en-US")

    async def fetch_notifications(self, user_id: int) -> list[Notification]:
        await self._notifications.sleep(self.notifications)
        return [Notification("N1", "Welcome"), Notification("N2", "New order")]

    async def build_user_profile(self, user_id: int) -> UserProfile:
        user = await self.fetch_user(user_id)
        # asyncio.gather wraps each coroutine in a Task of its own, so the three run concurrently.
        orders, prefs, notifications = await asyncio.gather(
            self.fetch_orders(user_id),
            self.fetch_preferences(user_id),
            self.fetch_notifications(user_id),
        )
        return UserProfile(user, orders, prefs, notifications)


def setup(p: Params):
    requests, concurrency = p.int("requests"), p.int("concurrency")
    p.int("pool-size")  # validated, then ignored: one task per request, no pool
    svc = UserService(p.seconds("user-ms"), p.seconds("orders-ms"), p.seconds("prefs-ms"),
                      p.seconds("notifications-ms"))

    async def iteration(index: int) -> tuple[int, dict[str, Any]]:
        svc.reset_proofs()
        start = now_ns()
        profiles: list[UserProfile | None] = [None] * requests  # each task fills its own slot

        async def request(user_id: int) -> None:
            profiles[user_id - 1] = await svc.build_user_profile(user_id)

        async with asyncio.TaskGroup() as tg:
            if concurrency == 0:
                for user_id in range(1, requests + 1):
                    tg.create_task(request(user_id))
            else:
                # At most C request tasks exist: the spawning loop takes a permit before each
                # create_task, the task gives it back once its profile is built.
                sem = asyncio.Semaphore(concurrency)

                async def bounded(user_id: int) -> None:
                    try:
                        profiles[user_id - 1] = await svc.build_user_profile(user_id)
                    finally:
                        sem.release()

                for user_id in range(1, requests + 1):
                    await sem.acquire()
                    tg.create_task(bounded(user_id))
        elapsed = now_ns() - start

        built = id_sum = id_sq_sum = items = 0
        for profile in profiles:
            if profile is None:
                continue  # not built
            built += 1
            uid = profile.user.id
            id_sum += uid
            id_sq_sum += uid * uid
            items += len(profile.orders) + 1 + len(profile.notifications)
        proofs = svc.proofs.items()
        return elapsed, {"profiles": built, "id_sum": id_sum, "id_sq_sum": id_sq_sum,
                         "items": items, "pool_size": None,
                         "fetched": {kind: proof.count for kind, proof in proofs},
                         "slept_min_ns": {kind: proof.shortest_ns() for kind, proof in proofs}}

    return iteration
