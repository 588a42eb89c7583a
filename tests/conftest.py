"""Suite-wide settings: property tests have no per-example deadline, since a deadline measures
the machine's load (2 shared cores under `stress`), not the code under test."""

from hypothesis import settings

settings.register_profile("ink", deadline=None)
settings.load_profile("ink")
