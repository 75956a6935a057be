"""Stand-in for the published forwarder worker, which awaits every backend call."""


class ArcticRLActorRolloutRefWorker:
    pass
