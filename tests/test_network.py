"""The network JSON format: round trips, both section spellings, and every malformed field reported."""

from __future__ import annotations

from pathlib import Path

import pytest

from nsvision.errors import ExitCode, InputError, NetworkFormatError
from nsvision.game.board import Section
from nsvision.game.network import GameOptions, Network, load_network, network_from_dict

DOC = {
    "format": "nsvision-network",
    "version": 1,
    "lines": {
        "purple": [["2,5", "3,6"], ["3,6", "4,6"]],
        "blue": ["5,7-5,4"],
        "pink": [],
    },
    "objectives": ["interchanges_8", "thames_6"],
    "powers": {"blue": "joker"},
    "doubled_stations": {"pink": "4,4"},
    "solo": True,
}


def test_parse_fills_missing_colours_and_normalises_sections() -> None:
    net = network_from_dict(DOC)
    assert net.sections("purple") == (Section.of((2, 5), (3, 6)), Section.of((3, 6), (4, 6)))
    assert net.sections("blue") == (Section((5, 4), (5, 7)),)
    assert net.sections("green") == ()
    assert net.options.objectives == ("interchanges_8", "thames_6")
    # A doubled station implies the double-station power on that line.
    assert dict(net.options.powers) == {"blue": "joker", "pink": "double_station"}
    assert net.options.doubled_stations["pink"] == (4, 4)
    assert net.options.modules_used == 2


def test_both_section_spellings_are_the_same_section() -> None:
    a = network_from_dict({"lines": {"green": [["4,3", "3,2"]]}})
    b = network_from_dict({"lines": {"green": ["3,2-4,3"]}})
    assert a == b


def test_json_round_trip(tmp_path: Path) -> None:
    net = network_from_dict(DOC)
    path = tmp_path / "net.json"
    path.write_text(net.to_json(), encoding="utf-8")
    again = load_network(path)
    assert again == net
    assert again.to_dict() == net.to_dict()


def test_empty_network() -> None:
    net = network_from_dict({"lines": {}})
    assert net.is_empty
    assert net == Network.build()
    assert net.options == GameOptions()
    assert net.options.modules_used == 0


def test_malformed_document_lists_every_problem_with_its_path() -> None:
    doc = {
        "format": "other",
        "version": 2,
        "lines": {
            "orange": [],
            "pink": [["3,2", "3,2"], ["a", "3,3"], ["11,0", "3,3"], 5, "3,2-4,3-5,3"],
            "green": "3,2-4,3",
        },
        "objectives": ["win"],
        "powers": {"pink": "fly"},
        "doubled_stations": {"black": "1,1"},
        "solo": "yes",
    }
    with pytest.raises(NetworkFormatError) as info:
        network_from_dict(doc, "bad.json")
    paths = [p.split(":")[0] for p in info.value.problems]
    assert paths == [
        "$.format",
        "$.version",
        "$.lines.orange",
        "$.lines.pink[0]",
        "$.lines.pink[1][0]",
        "$.lines.pink[2][0]",
        "$.lines.pink[3]",
        "$.lines.pink[4]",
        "$.lines.green",
        "$.objectives",
        "$.powers.pink",
        "$.doubled_stations.black",
        "$.solo",
    ]
    assert '"3,2-4,3-5,3"' in info.value.problems[7]
    assert info.value.exit_code == ExitCode.BAD_INPUT
    assert info.value.message.startswith("bad.json: ")


@pytest.mark.parametrize(
    ("doc", "path"),
    [
        ([], "$"),
        ({"lines": []}, "$.lines"),
        ({"lines": {}, "powers": ["joker"]}, "$.powers"),
        ({"lines": {}, "doubled_stations": "4,4"}, "$.doubled_stations"),
        ({"lines": {"pink": [[3, 2]]}}, "$.lines.pink[0][0]"),
    ],
)
def test_wrong_types_are_reported_not_crashed_on(doc: object, path: str) -> None:
    with pytest.raises(NetworkFormatError) as info:
        network_from_dict(doc)
    assert any(p.startswith(path + ":") for p in info.value.problems), info.value.problems


@pytest.mark.parametrize(
    ("content", "problem"),
    [(None, "no such file"), ("", "empty"), ("  \n", "empty"), ('{"lines": ', "not valid JSON")],
)
def test_unreadable_network_files(tmp_path: Path, content: str | None, problem: str) -> None:
    path = tmp_path / "net.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError, match=problem) as info:
        load_network(path)
    assert info.value.path == str(path)
