"""Stand-in for the published verl plugin (0.1.4 and the current sources): it imports the
adapter, which registers the backend `arctic`, then names the adapter's forwarder worker
with `RemoteBackendRegistry.register_worker` (the merged verl's registry), which a
pre-merge registry lacks: there this raises AttributeError."""

from verl.remote_backend.base import RemoteBackendRegistry

from arctic_platform.integrations.verl import adapter as _adapter  # noqa: F401


def _load_worker() -> type:
    from arctic_platform.integrations.verl.worker import ArcticRLActorRolloutRefWorker

    return ArcticRLActorRolloutRefWorker


RemoteBackendRegistry.register_worker("arctic", _load_worker)
