"""The platform API's official Python client: `from platform_api import Client`."""
from ._ratelimit import RateLimit
from ._version import __version__
from .client import Client
from .errors import *  # noqa: F401,F403 (one exception per error code)
from .errors import APIError

__all__ = ["Client", "APIError", "RateLimit", "__version__"]
