"""``ctxgrad.hub``: torch.hub's loading of weights and models, from files and directories.

* :func:`load_state_dict_from_url` downloads a file once into ``<hub dir>/checkpoints`` (or
  ``model_dir``) and loads it with :func:`ctxgrad.load`; a file already there is loaded with no
  download, and ``file://`` URLs work with no network.  The file must be one
  :func:`ctxgrad.save` wrote (a ``torch.save`` file gets ``ctxgrad.load``'s message on how to
  convert it).
* :func:`download_url_to_file` is the download, with the ``hash_prefix`` check; without a
  network it fails with ``urllib``'s ``URLError``, as torch's, saying what to do instead.
* :func:`load` with ``source="local"`` imports ``hubconf.py`` from a directory and calls the
  entry point; ``source="github"`` loads a repository already in the hub directory, and
  otherwise says to clone it (ctxgrad downloads no code).

The hub directory is ``$CTXGRAD_HOME/hub`` (default ``~/.cache/ctxgrad/hub``, under
``$XDG_CACHE_HOME`` when set), or what :func:`set_dir` set: not torch's, whose files are
``torch.save`` files.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import shutil
import sys
import tempfile
import urllib.error
import urllib.parse
from typing import Any

from ctxgrad.serialization import load as _load

__all__ = ["HASH_REGEX", "download_url_to_file", "get_dir", "load", "load_state_dict_from_url", "set_dir"]

#: The hash prefix in a file name, ``resnet18-5c106cde.pth`` (torch's pattern).
HASH_REGEX = re.compile(r"-([a-f0-9]*)\.")

_hub_dir: str | None = None


def get_dir() -> str:
    """The directory where downloads are kept (see the module's docstring)."""
    if _hub_dir is not None:
        return _hub_dir
    if "CTXGRAD_HOME" in os.environ:
        return os.path.join(os.path.expanduser(os.environ["CTXGRAD_HOME"]), "hub")
    cache = os.environ.get("XDG_CACHE_HOME", os.path.join("~", ".cache"))
    return os.path.join(os.path.expanduser(cache), "ctxgrad", "hub")


def set_dir(d: str | os.PathLike[str]) -> None:
    """Keep downloads in ``d`` from now on."""
    global _hub_dir
    _hub_dir = os.path.expanduser(os.fspath(d))


def download_url_to_file(url: str, dst: str, hash_prefix: str | None = None, progress: bool = True) -> None:
    """Download ``url`` to the file ``dst`` (through a temporary file beside it, so that an
    interrupted download leaves no file); with ``hash_prefix``, the file's SHA-256 must start
    with it (``RuntimeError`` otherwise, and no file is left)."""
    import urllib.request  # (here: it imports http and ssl, which ctxgrad needs for nothing else)

    dst = os.path.expanduser(dst)
    try:
        response = urllib.request.urlopen(urllib.request.Request(url, headers={"User-Agent": "ctxgrad.hub"}))
    except urllib.error.URLError as error:
        raise urllib.error.URLError(
            f"ctxgrad.hub: cannot download {url} ({error.reason}); without a network, put the file at {dst} "
            "or pass a local path as a file:// URL"
        ) from error
    digest = hashlib.sha256()
    folder = os.path.dirname(os.path.abspath(dst))
    os.makedirs(folder, exist_ok=True)
    with response, tempfile.NamedTemporaryFile(delete=False, dir=folder, suffix=".partial") as partial:
        try:
            while chunk := response.read(1 << 20):
                partial.write(chunk)
                digest.update(chunk)
        except BaseException:
            os.unlink(partial.name)
            raise
    if hash_prefix is not None and not digest.hexdigest().startswith(hash_prefix):
        os.unlink(partial.name)
        raise RuntimeError(f'invalid hash value (expected "{hash_prefix}", got "{digest.hexdigest()}")')
    shutil.move(partial.name, dst)


def load_state_dict_from_url(
    url: str,
    model_dir: str | None = None,
    map_location: Any = None,
    progress: bool = True,
    check_hash: bool = False,
    file_name: str | None = None,
    weights_only: bool = False,
) -> dict[str, Any]:
    """The object saved at ``url``, downloaded once into ``model_dir`` (default
    ``<hub dir>/checkpoints``) under ``file_name`` (default the URL's last part), then loaded
    with :func:`ctxgrad.load`.  ``check_hash`` checks the hash prefix in the file name."""
    model_dir = os.path.join(get_dir(), "checkpoints") if model_dir is None else model_dir
    os.makedirs(model_dir, exist_ok=True)
    name = file_name or os.path.basename(urllib.parse.urlparse(url).path)
    cached = os.path.join(model_dir, name)
    if not os.path.exists(cached):
        match = HASH_REGEX.search(name) if check_hash else None
        download_url_to_file(url, cached, match.group(1) if match else None, progress=progress)
    loaded: dict[str, Any] = _load(cached, map_location=map_location, weights_only=weights_only)
    return loaded


def load(
    repo_or_dir: str,
    model: str,
    *args: Any,
    source: str = "github",
    trust_repo: Any = "check",
    force_reload: bool = False,
    verbose: bool = True,
    skip_validation: bool = False,
    **kwargs: Any,
) -> Any:
    """``model(*args, **kwargs)``, the entry point of ``hubconf.py`` in ``repo_or_dir``: a
    directory (``source="local"``) or a GitHub repository ``owner/name[:ref]`` that is already
    in the hub directory (``owner_name_ref``, as torch keeps it)."""
    source = source.lower()
    if source not in ("github", "local"):
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "local".')
    directory = repo_or_dir if source == "local" else _cached_repository(repo_or_dir)
    hubconf = os.path.join(directory, "hubconf.py")
    if not os.path.isfile(hubconf):
        raise FileNotFoundError(f"ctxgrad.hub.load: no hubconf.py in {directory}")
    spec = importlib.util.spec_from_file_location("hubconf", hubconf)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, directory)  # hubconf imports the repository's own modules
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(directory)
    entry = getattr(module, model, None)
    if entry is None or not callable(entry):
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return entry(*args, **kwargs)


def _cached_repository(repo: str) -> str:
    """The directory of a GitHub repository in the hub directory; ctxgrad downloads no code."""
    owner_name, _, ref = repo.partition(":")
    owner, _, name = owner_name.partition("/")
    for candidate in [ref] if ref else ["main", "master"]:
        directory = os.path.join(get_dir(), f"{owner}_{name}_{candidate}")
        if os.path.isdir(directory):
            return directory
    raise RuntimeError(
        f"ctxgrad.hub.load: the repository {repo} is not in the hub directory ({get_dir()}), and ctxgrad downloads "
        f"no code: clone it and pass its directory with source='local'"
    )
