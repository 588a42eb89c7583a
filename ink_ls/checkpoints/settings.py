"""Checkpoint settings: on or off, the per-file size cap and the pruning limits.

Read from the environment (`INK_CHECKPOINTS`, `INK_CHECKPOINT_MAX_FILE_MB`,
`INK_CHECKPOINT_MAX_AGE_DAYS`, `INK_CHECKPOINT_MAX_STORE_MB`) or given by a front end.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

MIB = 1024 * 1024


class CheckpointSettings(BaseModel):
    """Wire names are camelCase (`maxFileMb`, …), as in the editor's `ink.checkpoints`."""

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="forbid", frozen=True
    )

    enabled: bool = True
    max_file_mb: float = Field(default=10.0, gt=0)
    """Files larger than this are not kept (named as not restorable)."""
    max_age_days: float = Field(default=30.0, gt=0)
    """Checkpoints older than this are pruned."""
    max_store_mb: float = Field(default=2048.0, gt=0)
    """When a workspace's store grows past this, its oldest checkpoints are pruned."""

    @property
    def max_file_bytes(self) -> int:
        return int(self.max_file_mb * MIB)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> CheckpointSettings:
        """Settings from the environment; a bad value falls back to the default of all."""
        source = os.environ if env is None else env
        values: dict[str, str] = {}
        for field, name in (
            ("enabled", "INK_CHECKPOINTS"),
            ("max_file_mb", "INK_CHECKPOINT_MAX_FILE_MB"),
            ("max_age_days", "INK_CHECKPOINT_MAX_AGE_DAYS"),
            ("max_store_mb", "INK_CHECKPOINT_MAX_STORE_MB"),
        ):
            value = source.get(name, "").strip()
            if value:
                values[field] = value
        try:
            return cls.model_validate(values)
        except ValidationError:
            return cls()
