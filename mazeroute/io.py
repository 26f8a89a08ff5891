"""Writing files so that a failure never leaves a half-written one behind.

Four pieces, from the smallest up: :func:`atomic_path` (one file, written under a
temporary name and renamed), :class:`OutputSet` (several files replaced together: all
new or all old), :func:`output_folder` (the folder a run writes into, created and
locked for the run) and :func:`safe_folder_name` (a folder name made from data, such as
a layout's name, that can never point outside the folder it is put in). Every
operating-system failure on the way out becomes an :class:`OutputError` naming the path
and the reason, which the command line prints as one line.

Examples
--------
>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> with output_folder(d / "run") as out, OutputSet(out) as files:
...     _ = files.stage("a.txt").write_text("one")
...     _ = files.stage("b.txt").write_text("two")
>>> sorted(p.name for p in (d / "run").iterdir())
['a.txt', 'b.txt']
>>> safe_folder_name("../../etc/passwd"), safe_folder_name(".."), safe_folder_name("summary.csv")
('etc_passwd', 'layout', 'summary.csv-2')
"""

from __future__ import annotations

import contextlib
import csv
import errno
import os
import signal
import stat
import tempfile
import threading
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

try:
    import fcntl
except ImportError:                      # not on Windows: runs there are not locked
    fcntl = None

#: Lock file that :func:`output_folder` holds inside the folder while a run writes.
LOCK_NAME = ".mazeroute.lock"
#: Names a batch keeps for itself in its output folder (compared without case).
RESERVED_NAMES = frozenset({"summary.csv", "summary.json"})
#: Longest folder name :func:`safe_folder_name` makes (characters; UTF-8 bytes <= 4x).
FOLDER_NAME_CHARS = 60


class OutputError(Exception):
    """An output that cannot be written: the path, and why, in one line.

    >>> str(OutputError("out/routes.json", "No space left on device"))
    'out/routes.json: No space left on device'
    """

    def __init__(self, path: str | Path, reason: str):
        self.path = str(path)
        self.reason = reason
        super().__init__(f"{self.path}: {reason}")

    @classmethod
    def from_os(cls, e: OSError, path: str | Path, doing: str = "cannot write") -> OutputError:
        """The error for an ``OSError`` met while writing ``path``."""
        if e.errno == errno.ENOTDIR or (e.errno == errno.EEXIST and any(
                p.exists() and not p.is_dir() for p in Path(path).parents)):
            # (mkdir of a folder where a file now stands says only "File exists")
            why = "a part of the path is a file, not a folder"
        elif e.errno == errno.EISDIR:
            why = "is a folder, not a file"
        else:
            why = e.strerror or str(e) or type(e).__name__
        return cls(path, f"{doing}: {why}")


# -- signals --------------------------------------------------------------------------
@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """Hold back SIGINT and SIGTERM inside the block; they take effect when it ends.

    Used around the few renames that replace a set of outputs, so that an interruption
    lands before or after them, never between two of them. (Python-level handlers, not
    a signal mask: another thread, e.g. a BLAS worker's, may be the one that receives a
    process's signal.) Outside the main thread nothing is held: signals are handled
    there only.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    old = {}
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            old[sig] = signal.signal(sig, lambda signum, frame: caught.append(signum))
        except (ValueError, OSError):
            pass
    try:
        yield
    finally:
        for sig, handler in old.items():
            signal.signal(sig, signal.SIG_DFL if handler is None else handler)
        for sig in dict.fromkeys(caught):
            signal.raise_signal(sig)              # as if it arrived now


# -- one file ---------------------------------------------------------------------------
def _temporary(path: Path) -> Path:
    """A new empty file beside ``path``, with a name no output ever has."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.stem[:40]}.", suffix=path.suffix[:16] + ".part",
                               dir=path.parent)
    os.close(fd)
    return Path(tmp)


@contextlib.contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; rename it onto ``path`` on success.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> with atomic_path(d / "a.txt") as tmp:
    ...     _ = tmp.write_text("done")
    >>> (d / "a.txt").read_text()
    'done'
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = None
    try:
        with signals_held():             # else a signal could come before tmp is set
            tmp = _temporary(path)
        yield tmp
        os.chmod(tmp, 0o666 & ~_umask())      # mkstemp makes 0600; give the usual mode
        os.replace(tmp, path)
    except BaseException:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_text(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def write_csv(path: str | Path, fieldnames: Sequence[str], rows: Iterable[dict]) -> None:
    """Write dict ``rows`` as a CSV file with a header line, atomically."""
    with atomic_path(path) as tmp, open(tmp, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(fieldnames))
        w.writeheader()
        w.writerows(rows)


# -- a set of files ----------------------------------------------------------------------
class OutputSet:
    """Files that are replaced together: after the block all are new, or all are old.

    Each file is written to a temporary sibling (:meth:`stage`); leaving the block
    without an exception moves them all into place, and deletes the files named by
    :meth:`remove` (old outputs this run does not make), with SIGINT and SIGTERM held
    back. When a move fails, the files already moved are put back as they were. An
    exception inside the block (an interruption included) deletes the temporaries, and
    the folder too when this set created it and it is left empty.

    ``folder`` is where relative names go; every path must stay inside ``root`` (by
    default ``folder``; checked after resolving symbolic links, so a link planted in
    the folder the user named cannot lead a write elsewhere). With ``folder=None`` the
    names are files the user named, wherever they are (their folders are created).

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> (d / "old.txt").write_text("old")
    3
    >>> try:
    ...     with OutputSet(d) as files:
    ...         _ = files.stage("old.txt").write_text("new")
    ...         raise RuntimeError("crash before the end")
    ... except RuntimeError:
    ...     pass
    >>> [p.name for p in d.iterdir()], (d / "old.txt").read_text()
    (['old.txt'], 'old')
    """

    def __init__(self, folder: str | Path | None, root: str | Path | None = None):
        self.folder = None if folder is None else Path(folder)
        self.root = self.folder if root is None else Path(root)
        self._staged: list[tuple[Path, Path]] = []
        self._removed: list[Path] = []
        self._created = False
        self._made: list[Path] = []         # folders stage() made, deepest first

    def __enter__(self) -> OutputSet:
        if self.folder is None:
            return self
        ensure_inside(self.folder, self.root)
        if not self.folder.is_dir():
            try:
                self.folder.mkdir(parents=True)
                self._created = True
            except FileExistsError:
                if not self.folder.is_dir():
                    raise OutputError(self.folder, "exists and is not a folder") from None
            except OSError as e:
                raise OutputError.from_os(e, self.folder, "cannot create the folder") from None
        return self

    def target(self, name: str | Path) -> Path:
        """``folder / name``, checked to lie inside ``root``."""
        if self.folder is None:
            return Path(name)
        path = self.folder / name
        ensure_inside(path, self.root)
        return path

    def stage(self, name: str | Path) -> Path:
        """A temporary file that becomes ``folder / name`` when the block ends well."""
        path = self.target(name)
        if self.folder is None and not path.parent.is_dir():
            # removed again if the set fails, as output_folder removes the one it made
            self._made[:0] = [d for d in (path.parent, *path.parent.parents)
                              if not d.exists()]
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise OutputError.from_os(e, path.parent, "cannot create the folder") from None
        try:
            # held: a signal between the file's creation and the append would leave it
            # behind, unknown to _discard (a .part file after Ctrl-C or SIGTERM)
            with signals_held():
                tmp = _temporary(path)
                self._staged.append((tmp, path))
        except OSError as e:
            raise OutputError.from_os(e, path) from None
        return tmp

    def remove(self, name: str | Path) -> None:
        """Delete ``folder / name`` (if there) together with the moves."""
        self._removed.append(self.target(name))

    def __exit__(self, kind, value, tb) -> None:
        if kind is None:
            self._commit()
        else:
            self._discard()

    def _commit(self) -> None:
        done: list[tuple[Path, Path | None]] = []   # (path, backup of its old file)
        mode = 0o666 & ~_umask()
        path = self.folder or Path(".")
        with signals_held():
            try:
                for tmp, path in self._staged:
                    os.chmod(tmp, mode)
                    backup = _set_aside(path)
                    done.append((path, backup))
                    os.replace(tmp, path)
                for path in self._removed:
                    backup = _set_aside(path)
                    if backup is not None:
                        done.append((path, backup))
            except OSError as e:
                for moved, backup in reversed(done):     # back as it was
                    with contextlib.suppress(OSError):
                        if backup is not None:
                            os.replace(backup, moved)
                        else:
                            os.unlink(moved)
                self._discard()
                raise OutputError.from_os(e, path) from None
            for _, backup in done:
                if backup is not None:
                    with contextlib.suppress(OSError):
                        os.unlink(backup)

    def _discard(self) -> None:
        with signals_held():
            for tmp, _ in self._staged:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
            if self._created and self.folder is not None:
                with contextlib.suppress(OSError):
                    self.folder.rmdir()           # only when empty
            for made in self._made:
                with contextlib.suppress(OSError):
                    made.rmdir()                  # only when empty


def _set_aside(path: Path) -> Path | None:
    """Rename ``path`` (when it exists) to a hidden backup beside it; return the backup."""
    if not os.path.lexists(path):
        return None
    if path.is_dir() and not path.is_symlink():
        raise IsADirectoryError(errno.EISDIR, "is a folder", str(path))
    backup = path.with_name(f".{path.name[:40]}.{os.getpid()}.old")
    os.replace(path, backup)
    return backup


# -- folders -------------------------------------------------------------------------------
def ensure_inside(path: str | Path, folder: str | Path) -> None:
    """Raise :class:`OutputError` unless ``path`` resolves to a place inside ``folder``.

    Symbolic links are followed, so a link planted in the folder cannot lead a write
    elsewhere.

    >>> ensure_inside("out/a/routes.json", "out")
    >>> ensure_inside("out/../x", "out")
    Traceback (most recent call last):
    ...
    mazeroute.io.OutputError: out/../x: lies outside the output folder out
    """
    root = Path(folder).resolve()
    try:
        Path(path).resolve().relative_to(root)
    except ValueError:
        raise OutputError(path, f"lies outside the output folder {folder}") from None


def check_output_file(path: str | Path) -> None:
    """Fail early (before any work) when ``path`` cannot be a file we write: a folder, or
    a name that ends in a separator (a folder the user meant, even one not made yet).

    >>> check_output_file("pictures/")
    Traceback (most recent call last):
    ...
    mazeroute.io.OutputError: pictures/: names a folder; give a file name
    """
    p = Path(path)
    if str(path).endswith(("/", os.sep, os.altsep or "/")):
        raise OutputError(path, "names a folder; give a file name")
    if _kind(p) == "folder":
        raise OutputError(p, "is a folder; give a file name")
    _not_special(p)
    _check_parents(p)


def _kind(p: Path) -> str | None:
    """``"folder"``, ``"file"`` (anything else) or None (nothing there, or a link that
    leads nowhere) for ``p``, links followed; a path the system refuses to look up (a
    name too long) is an :class:`OutputError`."""
    try:
        return "folder" if stat.S_ISDIR(os.stat(p).st_mode) else "file"
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as e:
        if e.errno in (errno.ELOOP, errno.EBADF):
            return None
        raise OutputError.from_os(e, p, "cannot use the path") from None
    except ValueError:                          # an embedded NUL
        raise OutputError(p, "cannot use the path: it holds a NUL character") from None


def _not_special(p: Path) -> None:
    """Refuse a path the user named for a file that names a device, FIFO or socket
    (links followed): written atomically, it would be replaced by a regular file, and
    /dev/full with it. (In an output folder of the tool's own, such a thing where an
    output goes is debris of an earlier run, and is replaced.)"""
    try:
        mode = os.stat(p).st_mode
    except (OSError, ValueError):
        return                               # not there (yet): a new file
    if not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
        raise OutputError(p, "is not a regular file (a device, FIFO or socket); give a "
                          "file name")


def check_output_folder(path: str | Path) -> None:
    """Fail early (before any work) when ``path`` cannot be a folder we write into."""
    p = Path(path)
    if _kind(p) == "file":
        raise OutputError(p, "exists and is not a folder")
    _check_parents(p)


def _check_parents(p: Path) -> None:
    for parent in p.absolute().parents:
        kind = _kind(parent)
        if kind is not None:
            if kind != "folder":
                raise OutputError(p, f"{parent} is a file, not a folder")
            return


@contextlib.contextmanager
def output_folder(path: str | Path) -> Iterator[Path]:
    """Create ``path`` if needed and hold its lock for the block.

    A second run into the same folder meanwhile fails at once with an
    :class:`OutputError`. The lock file is removed again at the end; a folder this call
    created is removed too when the run leaves it empty.
    """
    folder = Path(path)
    check_output_folder(folder)
    created = False
    try:
        if not folder.is_dir():
            folder.mkdir(parents=True)
            created = True
    except FileExistsError:
        pass
    except OSError as e:
        raise OutputError.from_os(e, folder, "cannot create the folder") from None
    try:
        with _lock(folder):
            yield folder
    finally:
        if created:
            with contextlib.suppress(OSError):
                folder.rmdir()                    # only when empty


@contextlib.contextmanager
def _lock(folder: Path) -> Iterator[None]:
    lock = folder / LOCK_NAME
    if fcntl is None:
        yield
        return
    while True:
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o666)
        except OSError as e:
            raise OutputError.from_os(e, folder, "cannot write into the folder") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise OutputError(folder, "another mazeroute run is writing into this folder "
                                      f"(it holds {LOCK_NAME})") from None
        except OSError:                       # a file system without locks: run unlocked
            os.close(fd)
            yield
            return
        # The holder before us may have removed the file between our open and our lock:
        # then we hold a lock nobody else can see, and must take the new file's instead.
        try:
            same = os.path.samestat(os.fstat(fd), os.stat(lock, follow_symlinks=False))
        except OSError:
            same = False
        if same:
            break
        os.close(fd)
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            os.unlink(lock)                   # while still holding it: see above
        os.close(fd)


def safe_folder_name(name: str, taken: set[str] | None = None) -> str:
    """A folder name made from ``name`` that stays inside the folder it is put in.

    Path separators, control and format characters and other punctuation become
    ``_``; no ``..``, no leading dot or dash; at most :data:`FOLDER_NAME_CHARS` characters; never
    one of :data:`RESERVED_NAMES`. With ``taken`` (names already given out, compared
    without case) the name is made unique with ``-2``, ``-3``, ... and added to it.

    >>> taken = set()
    >>> [safe_folder_name(n, taken) for n in ["demo", "Demo", "a/b", "a_b", "\\x00"]]
    ['demo', 'Demo-2', 'a_b', 'a_b-2', 'layout']
    """
    text = unicodedata.normalize("NFC", str(name))
    chars = [c if (c.isalnum() or c in "-_.+=,@") and c.isprintable() else "_" for c in text]
    safe = "".join(chars)
    while "__" in safe or ".." in safe:
        safe = safe.replace("__", "_").replace("..", ".")
    safe = safe.lstrip("._-")[:FOLDER_NAME_CHARS].rstrip(". ") or "layout"
    if set(safe) <= {".", "_"}:
        safe = "layout"
    used = taken if taken is not None else set()
    seen = {t.casefold() for t in used} | RESERVED_NAMES
    out, n = safe, 2
    while out.casefold() in seen:
        out, n = f"{safe}-{n}", n + 1
    if taken is not None:
        taken.add(out)
    return out
