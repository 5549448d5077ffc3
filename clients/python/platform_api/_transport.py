"""HTTP for the generated client: the token, JSON, timeouts, error answers as exceptions, and 429s waited out."""
import json
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, Mapping, Optional

from ._ratelimit import RateLimit
from ._version import __version__
from .errors import ERRORS_BY_CODE, APIError

USER_AGENT = f"platform-api-python/{__version__}"


class Transport:
    def __init__(self, token: str, base_url: str, *, timeout: float, wait_on_rate_limit: bool, max_wait: float) -> None:
        if not token:
            raise ValueError("token is required: an API token such as plat_...")
        self._token = token
        self._base = base_url.rstrip("/") + "/v1"
        self._timeout = timeout
        self._wait_on_rate_limit = wait_on_rate_limit
        self._max_wait = max_wait
        self.rate_limit: Optional[RateLimit] = None

    def get(self, path: str, query: Mapping[str, Any]) -> Dict[str, Any]:
        """The answer's JSON body; an error answer raises the APIError of its code."""
        url = self._base + path
        params = {name: _query_value(value) for name, value in query.items() if value is not None}
        if params:
            url += "?" + urllib.parse.urlencode(params)
        waited = 0.0
        while True:
            try:
                return self._send(url)
            except APIError as error:
                wait = error.retry_after if error.status == 429 and error.retry_after is not None else None
                if not self._wait_on_rate_limit or wait is None or waited + wait > self._max_wait:
                    raise
                time.sleep(wait)
                waited += wait

    def _send(self, url: str) -> Dict[str, Any]:
        request = urllib.request.Request(
            url,
            headers={"Authorization": f"Bearer {self._token}", "Accept": "application/json", "User-Agent": USER_AGENT},
        )
        try:
            with urllib.request.urlopen(request, timeout=self._timeout) as response:
                headers = {k.lower(): v for k, v in response.headers.items()}
                self.rate_limit = RateLimit.from_headers(headers) or self.rate_limit
                return json.loads(response.read().decode("utf-8"))
        except urllib.error.HTTPError as answer:
            headers = {k.lower(): v for k, v in answer.headers.items()}
            raise _error(answer.code, answer.read(), headers) from None
        except (urllib.error.URLError, socket.timeout) as failure:
            raise ConnectionError(f"could not reach {url}: {getattr(failure, 'reason', failure)}") from failure


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _error(status: int, body: bytes, headers: Mapping[str, str]) -> APIError:
    try:
        envelope = json.loads(body.decode("utf-8"))
        code, message = envelope["error"]["code"], envelope["error"]["message"]
    except (ValueError, KeyError, TypeError):
        code, message = None, body.decode("utf-8", "replace")[:200] or f"HTTP {status}"
    retry = headers.get("retry-after")
    retry_after = float(retry) if retry is not None and retry.replace(".", "", 1).isdigit() else None
    kind = ERRORS_BY_CODE.get(code or "", APIError)
    return kind(message, status=status, code=code, rate_limit=RateLimit.from_headers(headers), retry_after=retry_after)
