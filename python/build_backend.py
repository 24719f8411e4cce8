"""A PEP 517 build backend for dispatch_report, the standard library only: the package is one module, so its wheel
is that module and its metadata, and installing it needs nothing downloaded."""

from __future__ import annotations

import base64
import hashlib
import io
import os
import tarfile
import zipfile
from typing import Any, Dict, List, Optional

NAME = "dispatch_report"
DIST = "dispatch-report"
VERSION = "0.1.0"
HERE = os.path.dirname(os.path.abspath(__file__))
SUMMARY = "Report a training job's metrics and logs to the dispatch job service, without slowing or breaking training"

METADATA = (
    "Metadata-Version: 2.1\n"
    "Name: %s\n"
    "Version: %s\n"
    "Summary: %s\n"
    "Requires-Python: >=3.9\n" % (DIST, VERSION, SUMMARY)
)
WHEEL = "Wheel-Version: 1.0\nGenerator: dispatch_report build_backend\nRoot-Is-Purelib: true\nTag: py3-none-any\n"


def _digest(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")


def _module() -> bytes:
    with open(os.path.join(HERE, NAME + ".py"), "rb") as source:
        return source.read()


def get_requires_for_build_wheel(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    return []


def get_requires_for_build_sdist(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    return []


def get_requires_for_build_editable(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    return []


def _write_wheel(directory: str, files: Dict[str, bytes]) -> str:
    info = "%s-%s.dist-info" % (NAME, VERSION)
    entries = dict(files)
    entries[info + "/METADATA"] = METADATA.encode("utf-8")
    entries[info + "/WHEEL"] = WHEEL.encode("utf-8")
    record = "".join("%s,%s,%d\n" % (path, _digest(data), len(data)) for path, data in entries.items()) + info + "/RECORD,,\n"
    entries[info + "/RECORD"] = record.encode("utf-8")
    filename = "%s-%s-py3-none-any.whl" % (NAME, VERSION)
    with zipfile.ZipFile(os.path.join(directory, filename), "w", zipfile.ZIP_DEFLATED) as wheel:
        for path, data in entries.items():
            wheel.writestr(zipfile.ZipInfo(path, date_time=(2026, 1, 1, 0, 0, 0)), data)
    return filename


def build_wheel(wheel_directory: str, config_settings: Optional[Dict[str, Any]] = None, metadata_directory: Optional[str] = None) -> str:
    return _write_wheel(wheel_directory, {NAME + ".py": _module()})


def build_editable(wheel_directory: str, config_settings: Optional[Dict[str, Any]] = None, metadata_directory: Optional[str] = None) -> str:
    # A .pth file puts this directory on the path, so the module is used where it is.
    return _write_wheel(wheel_directory, {NAME + ".pth": (HERE + "\n").encode("utf-8")})


def build_sdist(sdist_directory: str, config_settings: Optional[Dict[str, Any]] = None) -> str:
    base = "%s-%s" % (NAME, VERSION)
    filename = base + ".tar.gz"
    with tarfile.open(os.path.join(sdist_directory, filename), "w:gz") as sdist:
        for name in ("pyproject.toml", "build_backend.py", NAME + ".py"):
            sdist.add(os.path.join(HERE, name), arcname="%s/%s" % (base, name))
        data = METADATA.encode("utf-8")
        info = tarfile.TarInfo("%s/PKG-INFO" % base)
        info.size = len(data)
        sdist.addfile(info, io.BytesIO(data))
    return filename
