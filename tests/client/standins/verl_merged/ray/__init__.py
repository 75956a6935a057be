"""Ray's actor API as verl's rollout replicas use it: `ray.remote(cls).options(...)
.remote(**init)` starts an async actor (its own event-loop thread, the instance built
there); `handle.method.remote(...)` runs the call on that loop and returns a reference to
await (or to `ray.get`). `calls` on a handle lists the methods called, in order."""

import asyncio
import threading
from concurrent.futures import Future
from typing import Any


class ObjectRef:
    def __init__(self, future: Future) -> None:
        self.future = future

    def __await__(self) -> Any:
        return asyncio.wrap_future(self.future).__await__()


def get(refs: Any) -> Any:
    if isinstance(refs, list):
        return [ref.future.result() for ref in refs]
    return refs.future.result()


class _Method:
    def __init__(self, actor: "ActorHandle", name: str) -> None:
        self._actor, self._name = actor, name

    def remote(self, *args: Any, **kwargs: Any) -> ObjectRef:
        self._actor.calls.append(self._name)
        method = getattr(self._actor.instance, self._name)
        return ObjectRef(self._actor.submit(method, *args, **kwargs))


class ActorHandle:
    def __init__(self, cls: type, options: dict[str, Any], init: dict[str, Any]) -> None:
        self.options = options
        self.calls: list[str] = []
        self._loop = asyncio.new_event_loop()
        threading.Thread(target=self._loop.run_forever, daemon=True).start()
        self.instance = self.submit(cls, **init).result()

    def submit(self, fn: Any, *args: Any, **kwargs: Any) -> Future:
        async def run() -> Any:
            value = fn(*args, **kwargs)
            return await value if asyncio.iscoroutine(value) else value

        return asyncio.run_coroutine_threadsafe(run(), self._loop)

    def __getattr__(self, name: str) -> _Method:
        if name.startswith("_"):
            raise AttributeError(name)
        return _Method(self, name)


class _ActorClass:
    def __init__(self, cls: type, options: dict[str, Any]) -> None:
        self._cls, self._options = cls, options

    def options(self, **options: Any) -> "_ActorClass":
        return _ActorClass(self._cls, {**self._options, **options})

    def remote(self, **init: Any) -> ActorHandle:
        return ActorHandle(self._cls, self._options, init)


def remote(cls: type) -> _ActorClass:
    return _ActorClass(cls, {})
