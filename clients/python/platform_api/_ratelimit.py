"""The rate-limit figures every answer carries (X-RateLimit-Limit, -Remaining, -Reset)."""
from dataclasses import dataclass
from typing import Mapping, Optional


@dataclass(frozen=True)
class RateLimit:
    """Requests allowed in the current window, how many are left, and when it ends (Unix epoch seconds)."""

    limit: int
    remaining: int
    reset: int

    @classmethod
    def from_headers(cls, headers: Mapping[str, str]) -> Optional["RateLimit"]:
        try:
            return cls(int(headers["x-ratelimit-limit"]), int(headers["x-ratelimit-remaining"]), int(headers["x-ratelimit-reset"]))
        except (KeyError, ValueError):
            return None
