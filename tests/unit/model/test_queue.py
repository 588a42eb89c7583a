"""The per-endpoint request limit: first come, first served, places reported, no leaks."""

from __future__ import annotations

import asyncio

from ink_ls.model.queue import EndpointQueues, FairQueue


async def _hold(
    queue: FairQueue, name: str, started: list[str], places: dict[str, list[int]], go: asyncio.Event
) -> None:
    async with queue.slot(places.setdefault(name, []).append):
        started.append(name)
        await go.wait()


async def _settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


async def test_waiters_start_in_arrival_order_with_their_places() -> None:
    queue = FairQueue(2)
    started: list[str] = []
    places: dict[str, list[int]] = {}
    gates = {name: asyncio.Event() for name in "abcdef"}
    tasks = [asyncio.create_task(_hold(queue, n, started, places, gates[n])) for n in "abcdef"]
    await _settle()
    assert started == ["a", "b"]
    assert (queue.running, queue.waiting) == (2, 4)
    assert places == {"a": [], "b": [], "c": [0], "d": [1], "e": [2], "f": [3]}
    gates["b"].set()  # a slot frees: the first waiter takes it, the rest move up
    await _settle()
    assert started == ["a", "b", "c"]
    assert places["d"] == [1, 0] and places["f"] == [3, 2]
    for gate in gates.values():
        gate.set()
    await asyncio.gather(*tasks)
    assert started == list("abcdef")
    assert (queue.running, queue.waiting) == (0, 0)


async def test_a_cancelled_waiter_leaves_the_queue() -> None:
    queue = FairQueue(1)
    started: list[str] = []
    places: dict[str, list[int]] = {}
    go = asyncio.Event()
    tasks = {n: asyncio.create_task(_hold(queue, n, started, places, go)) for n in "abc"}
    await _settle()
    tasks["b"].cancel()
    await _settle()
    assert queue.waiting == 1
    assert places["c"] == [1, 0]  # b left: c is next
    go.set()
    await asyncio.gather(tasks["a"], tasks["c"])
    assert started == ["a", "c"]
    assert (queue.running, queue.waiting) == (0, 0)


async def test_a_slot_handed_to_a_waiter_cancelled_in_the_same_step_passes_on() -> None:
    queue = FairQueue(1)
    started: list[str] = []
    places: dict[str, list[int]] = {}
    gate_a, go = asyncio.Event(), asyncio.Event()
    a = asyncio.create_task(_hold(queue, "a", started, places, gate_a))
    b = asyncio.create_task(_hold(queue, "b", started, places, go))
    c = asyncio.create_task(_hold(queue, "c", started, places, go))
    await _settle()
    gate_a.set()
    await asyncio.sleep(0)  # a releases: b's future is done, b has not run yet
    await a
    b.cancel()
    go.set()
    await asyncio.gather(b, c, return_exceptions=True)
    assert started == ["a", "c"]
    assert (queue.running, queue.waiting) == (0, 0)


async def test_a_long_queue_reports_places_below_ten_and_at_powers_of_two() -> None:
    queue = FairQueue(1)
    go = asyncio.Event()
    started: list[str] = []
    places: dict[str, list[int]] = {}
    names = [f"r{i}" for i in range(41)]
    tasks = [asyncio.create_task(_hold(queue, n, started, places, go)) for n in names]
    await _settle()
    go.set()
    await asyncio.gather(*tasks)
    assert started == names  # first come, first served
    # the last waiter hears its place on arrival, at 32 and 16, then at every step below 10
    assert places["r40"] == [39, 32, 16, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0]


async def test_endpoints_share_one_queue_and_a_raised_limit_lets_waiters_in() -> None:
    queues = EndpointQueues()
    assert queues.get("http://a/v1", None) is None
    first = queues.get("http://a/v1", 1)
    assert first is not None and queues.get("http://a/v1", 1) is first
    started: list[str] = []
    places: dict[str, list[int]] = {}
    go = asyncio.Event()
    tasks = [asyncio.create_task(_hold(first, n, started, places, go)) for n in "abc"]
    await _settle()
    assert started == ["a"]
    queues.get("http://a/v1", 3)
    await _settle()
    assert started == ["a", "b", "c"]
    go.set()
    await asyncio.gather(*tasks)
