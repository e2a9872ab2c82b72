"""One error hierarchy; each error carries its exit code and tells the user what to do.

The library raises these; the CLI maps them to exit codes in one place.
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """Process exit codes of the ``nsvision`` command (documented in the README).

    Typer keeps its own code 2 for usage errors, so ours skip it.
    """

    OK = 0
    """The sheet is legal (and any claims match)."""
    RULES_BROKEN = 1
    """A construction rule is broken, or a claimed total does not match what the sheet shows."""
    NEEDS_REVIEW = 3
    """The reading is uncertain: a person must look at the named sections."""
    BAD_INPUT = 4
    """The input cannot be read: missing, empty, truncated, not an image/PDF/network, malformed, or a
    black-and-white picture (no pencil's colour can be read from it)."""
    NO_MAP = 5
    """The input is a readable picture but holds no Map of London."""
    BAD_CALIBRATION = 6
    """The calibration file is missing or invalid, or a blank sheet cannot be calibrated."""
    INTERNAL = 70
    """A bug in nsvision: please report it with the input file."""


class NsvisionError(Exception):
    """Base of every error nsvision raises on purpose."""

    exit_code: ExitCode = ExitCode.INTERNAL

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __reduce__(self) -> tuple[object, ...]:
        # Subclasses build their message from their own arguments: an error sent from a worker
        # process must come back as it was, not be built again from its finished message.
        return (_restore, (type(self), self.args, self.__dict__))


def _restore(cls: type[NsvisionError], args: tuple[object, ...], state: dict[str, object]) -> NsvisionError:
    """An error as it was pickled (see ``NsvisionError.__reduce__``)."""
    err = cls.__new__(cls)
    Exception.__init__(err, *args)
    err.__dict__.update(state)
    return err


class InputError(NsvisionError):
    """The input file cannot be read or is not what it should be."""

    exit_code = ExitCode.BAD_INPUT

    def __init__(self, path: str, problem: str, hint: str = "") -> None:
        self.path = path
        self.problem = problem
        self.hint = hint
        text = f"{path}: {problem}"
        if hint:
            text += f" — {hint}"
        super().__init__(text)


class NetworkFormatError(InputError):
    """A network JSON file is malformed (lists every problem)."""

    def __init__(self, path: str, problems: list[str]) -> None:
        self.problems = problems
        super().__init__(
            path,
            "not a valid nsvision network:\n  " + "\n  ".join(problems),
            "fix the listed fields (see 'Network files' in the README)",
        )


class NoMapFoundError(NsvisionError):
    """A readable picture that holds no Map of London."""

    exit_code = ExitCode.NO_MAP

    def __init__(self, path: str, detail: str = "") -> None:
        self.path = path
        self.detail = detail
        text = f"no Map of London found in {path}"
        if detail:
            text += f" ({detail})"
        text += " — photograph the whole map, flat and in focus, with the stations visible"
        super().__init__(text)


class CalibrationError(NsvisionError):
    """A calibration file is invalid (lists every problem with its JSON path)."""

    exit_code = ExitCode.BAD_CALIBRATION

    def __init__(self, path: str, problems: list[str], hint: str = "") -> None:
        self.path = path
        self.problems = problems
        text = f"{path}: invalid calibration:\n  " + "\n  ".join(problems)
        if hint:
            text += f"\n{hint}"
        super().__init__(text)


class ClaimError(InputError):
    """A claimed-totals string or CSV row cannot be parsed."""
