"""Watching a served drive while it serves: the snapshots the server pushes once a second
(:mod:`.feed`), a dashboard page in the browser (:mod:`.dashboard`), Prometheus metrics
(:mod:`.metrics`), and the pacing checks: the time scale the server picks for itself and
the warning when replies run late (:mod:`.pacing`). The twin's thread never waits on any of
them: they read a ring it fills, from threads of their own.
"""
