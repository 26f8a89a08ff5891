"""Negotiated routing in parts: its options (:mod:`.options`), its schedule (net
order and batches, :mod:`.schedule`), its state (routes, boxes and congestion,
:mod:`.state`), its conflicts (:mod:`.conflicts`), its loop (:mod:`.loop`) and the
phases after the loop (:mod:`.phases`); :mod:`mazeroute.router.negotiate` puts them
together.
"""
