"""A PEP 517 build backend for fp8_mlir that needs nothing installed.

`pip install ./python` builds in an isolated environment into which it
would otherwise download setuptools; this backend (found through
pyproject.toml's backend-path) writes the wheel with the standard library,
so installing works offline. The package is pure Python: the compiled parts
(libFP8MLIR-C.so, libfp8rt.so) come from a build or an install of the CMake
project.
"""

import base64
import hashlib
import os
import re
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "fp8_mlir"
WHEEL_TAG = "py3-none-any"


def _project():
    """name, version and summary from pyproject.toml's [project] table."""
    text = open(os.path.join(ROOT, "pyproject.toml")).read()
    table = text.split("[project]", 1)[1].split("\n[", 1)[0]
    fields = dict(re.findall(r'^(\w+)\s*=\s*"([^"]*)"', table, re.M))
    return fields["name"], fields["version"], fields.get("description", "")


def _files():
    """(path in the wheel, path on disk) of every module of the package; a
    symbolic link is packed as the file it points to."""
    base = os.path.join(ROOT, PACKAGE)
    for directory, dirs, names in os.walk(base):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(names):
            if name.endswith(".py"):
                disk = os.path.join(directory, name)
                yield os.path.relpath(disk, ROOT).replace(os.sep, "/"), disk


def _record_line(arcname, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{arcname},sha256={digest},{len(data)}"


def _metadata(name, version, summary):
    return (f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
            f"Summary: {summary}\nRequires-Python: >=3.9\nRequires-Dist: numpy\n")


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    name, version, summary = _project()
    info = f"{name.replace('-', '_')}-{version}.dist-info"
    os.makedirs(os.path.join(metadata_directory, info), exist_ok=True)
    with open(os.path.join(metadata_directory, info, "METADATA"), "w") as f:
        f.write(_metadata(name, version, summary))
    return info


def _build(wheel_directory, entries):
    name, version, summary = _project()
    dist = name.replace("-", "_")
    info = f"{dist}-{version}.dist-info"
    wheel_name = f"{dist}-{version}-{WHEEL_TAG}.whl"
    records = []
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel_name), "w",
                         zipfile.ZIP_DEFLATED) as wheel:
        def add(arcname, data):
            wheel.writestr(arcname, data)
            records.append(_record_line(arcname, data))

        for arcname, data in entries:
            add(arcname, data)
        add(f"{info}/METADATA", _metadata(name, version, summary).encode())
        add(f"{info}/WHEEL", (f"Wheel-Version: 1.0\nGenerator: fp8_mlir_build\n"
                              f"Root-Is-Purelib: true\nTag: {WHEEL_TAG}\n").encode())
        records.append(f"{info}/RECORD,,")
        wheel.writestr(f"{info}/RECORD", "\n".join(records) + "\n")
    return wheel_name


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _build(wheel_directory,
                  [(arcname, open(disk, "rb").read()) for arcname, disk in _files()])


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    # A .pth file puts the source directory on sys.path.
    return _build(wheel_directory, [(f"{PACKAGE}_editable.pth", (ROOT + "\n").encode())])
