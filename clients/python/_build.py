"""A PEP 517 build backend in the standard library alone: pip builds the wheel from this checkout without
downloading setuptools (the registries these machines reach have no Python packages). The wheel is the
`platform_api` package as it is, pure Python, with the metadata pyproject.toml gives."""
import base64
import hashlib
import os
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
NAME = "platform_api"
DIST = "platform_api"


def _version():
    scope = {}
    with open(os.path.join(HERE, NAME, "_version.py"), encoding="utf-8") as source:
        exec(source.read(), scope)  # the generated file sets __version__ and nothing else
    return scope["__version__"]


def _metadata(version):
    return (
        "Metadata-Version: 2.1\n"
        "Name: platform-api\n"
        f"Version: {version}\n"
        "Summary: The official Python client of the platform API, generated from its OpenAPI document\n"
        "Requires-Python: >=3.9\n"
        "License: MIT\n"
    )


def _digest(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    version = _version()
    info = f"{DIST}-{version}.dist-info"
    files = {}
    for root, _dirs, names in os.walk(os.path.join(HERE, NAME)):
        for name in sorted(names):
            if name.endswith(".py"):
                path = os.path.join(root, name)
                with open(path, "rb") as source:
                    files[os.path.relpath(path, HERE).replace(os.sep, "/")] = source.read()
    files[f"{info}/METADATA"] = _metadata(version).encode()
    files[f"{info}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: platform-api _build\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    record = "".join(f"{path},{_digest(data)},{len(data)}\n" for path, data in files.items()) + f"{info}/RECORD,,\n"
    files[f"{info}/RECORD"] = record.encode()
    wheel = f"{DIST}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel), "w", zipfile.ZIP_DEFLATED) as archive:
        for path, data in files.items():
            archive.writestr(zipfile.ZipInfo(path, date_time=(1980, 1, 1, 0, 0, 0)), data)
    return wheel
