"""Input files taken at their word (issue 20): every error names its file; JSON that a reader would silently take as
something else than what it says (a repeated key, a non-zero number that reads as 0, NaN/Infinity literals, numbers
beyond float64) is refused with exit 2, naming the file and what is wrong. Through `cli.main`, as a user runs it."""
import json

import pytest

from relucheck.numerics.errors import RelucheckInputError
from relucheck.numerics.instances import load_instance
from relucheck.numerics.schema import naming, read_json_file
from relucheck.proofs_checks.cli import main

INSTANCE = '{"inputs": [[1, 0], [0, 1]], "labels": LABELS, "directions": [[0.6, 0.8], [0, 1]], "signs": [1, -1]}'
DATA = '{"inputs": [[1, 0.5], [-0.3, 1], [0.2, -1]], "labels": LABELS}'


def _run(capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.mark.parametrize("labels, condition", [
    ("[0, 0]", "Assumption 4(ii) (non-zero labels y_i ≠ 0) violated: label 0 is 0"),
    ("[1.5, 0]", "Assumption 4(ii) (non-zero labels y_i ≠ 0) violated: label 1 is 0"),
])
@pytest.mark.parametrize("exact", [False, True])
def test_limit_process_names_the_file_of_a_violated_hypothesis(tmp_path, capsys, labels, condition, exact):
    path = _write(tmp_path, "zero_labels.json", INSTANCE.replace("LABELS", labels))
    code, out, err = _run(capsys, ["limit-process", str(path), *(["--exact"] if exact else [])])
    assert code == 2 and out == ""
    assert err == f"relucheck: error: instance file {path}: {condition}\n"


def test_limit_process_names_the_file_of_non_orthonormal_inputs(tmp_path, capsys):
    path = _write(tmp_path, "oblique.json", INSTANCE.replace("[[1, 0], [0, 1]]", "[[1, 0], [0.6, 0.8]]")
                  .replace("LABELS", "[1, 2]"))
    code, _, err = _run(capsys, ["limit-process", str(path)])
    assert code == 2 and err.startswith(f"relucheck: error: instance file {path}: Assumption 1")


# What a JSON reader would silently take as something else, and the part of the message that says so
SILENT = [
    ("duplicate_key", '"labels": LABELS, "labels": LABELS', "the key 'labels' appears twice in one object"),
    ("tiny_number", '"labels": [1e-400, 1, 2]', "the number 1e-400 is below float64's smallest positive number"),
    ("nan", '"labels": [NaN, 1, 2]', "NaN is not a JSON number"),
    ("infinity", '"labels": [1, -Infinity, 2]', "-Infinity is not a JSON number"),
    ("overflow", '"labels": [1, 1e400, 2]', "field 'labels[1]': must be finite, got inf"),
    ("huge_integer", '"labels": [1' + "0" * 399 + ', 1, 2]', "field 'labels[0]': |value| must be ≤"),  # 400 digits: read
    ("longer_integer", '"labels": [1' + "0" * 400 + ', 1, 2]', "the integer 100000000000… has 401 digits"),
    ("longest_integer", '"labels": [' + "9" * 5000 + ', 1, 2]', "has 5000 digits; numbers must fit float64"),
]


def _silent_file(tmp_path, template, name, replacement):
    text = template.replace('"labels": LABELS', replacement).replace("LABELS", "[1, 2, 3]")
    return _write(tmp_path, f"{name}.json", text)


@pytest.mark.parametrize("name, replacement, condition", SILENT, ids=[s[0] for s in SILENT])
def test_extremal_vectors_refuses_what_a_reader_would_take_silently(tmp_path, capsys, name, replacement, condition):
    path = _silent_file(tmp_path, DATA, name, replacement)
    code, out, err = _run(capsys, ["extremal-vectors", str(path)])
    assert code == 2 and out == "", err
    assert err.startswith(f"relucheck: error: data file {path}: ") and condition in err
    assert err.count("\n") == 1 and "internal error" not in err


@pytest.mark.parametrize("name, replacement, condition", SILENT, ids=[s[0] for s in SILENT])
def test_limit_process_refuses_what_a_reader_would_take_silently(tmp_path, capsys, name, replacement, condition):
    template = INSTANCE.replace("[[1, 0], [0, 1]]", "[[1, 0, 0], [0, 1, 0], [0, 0, 1]]").replace(
        "[[0.6, 0.8], [0, 1]]", "[[0.6, 0.8, 0], [0, 1, 0]]")
    path = _silent_file(tmp_path, template, name, replacement)
    code, out, err = _run(capsys, ["limit-process", str(path)])
    assert code == 2 and out == "", err
    assert err.startswith(f"relucheck: error: instance file {path}: ") and condition in err
    assert "internal error" not in err


def test_a_repeated_key_is_refused_at_any_depth(tmp_path):
    path = _write(tmp_path, "meta.json", INSTANCE.replace("LABELS", "[1, 2]")[:-1] + ', "meta": {"seed": 1, "seed": 2}}')
    with pytest.raises(RelucheckInputError, match=f"instance file {path}: the key 'seed' appears twice"):
        load_instance(path)


def test_the_same_numbers_without_silent_changes_are_read(tmp_path):
    # zero written as zero (any exponent), the smallest subnormal, float64's largest: read as written
    path = _write(tmp_path, "edge.json", '{"a": [0e-400, -0.0e5, 5e-324, 1.7976931348623157e308, 1' + "0" * 300 + "]}")
    assert read_json_file(path, "test") == {"a": [0.0, -0.0, 5e-324, 1.7976931348623157e308, 10**300]}
    assert load_instance(_write(tmp_path, "ok.json", INSTANCE.replace("LABELS", "[1e-300, 2]"))).labels[0] == 1e-300


def test_check_ode_files_share_the_reader(tmp_path, capsys):
    path = _write(tmp_path, "ode.json", '{"time": "t", "time": "s"}')
    code, _, err = _run(capsys, ["check-ode", str(path)])
    assert code == 2 and f"ODE file {path}: the key 'time' appears twice" in err


def test_naming_prefixes_the_file_once_and_keeps_the_error_class():
    from relucheck.numerics.errors import HypothesisViolation

    with pytest.raises(HypothesisViolation) as caught, naming("instance file x.json"):
        raise HypothesisViolation("Assumption 1", "not orthonormal")
    assert caught.value.args[0] == "instance file x.json: Assumption 1 violated: not orthonormal"
    with pytest.raises(RelucheckInputError) as caught, naming("instance file x.json"):
        raise RelucheckInputError("instance file x.json: field 'labels' is missing")
    assert caught.value.args[0] == "instance file x.json: field 'labels' is missing"


def test_extremal_vectors_json_output_is_unchanged_by_the_budget(tmp_path, capsys):
    path = _write(tmp_path, "data.json", DATA.replace("LABELS", "[1, -2, 0.5]"))
    code, out, err = _run(capsys, ["extremal-vectors", str(path), "--json"])
    assert code == 0 and err == ""
    assert all({"direction", "vector", "type", "face", "ties"} == set(row) for row in json.loads(out))


def test_flow_names_the_instance_file_for_a_property_of_its_data(tmp_path, capsys):
    """A zero input is found while the flow problem is built: the message still names the file (issue 20)."""
    import json

    from relucheck.proofs_checks.cli import main

    path = tmp_path / "zero_input.json"
    path.write_text(json.dumps({"inputs": [[1.0, 0.0], [0.0, 0.0], [0.6, 0.8]], "labels": [1.0, -0.5, 0.3],
                                "directions": [[1.0, 0.0], [0.0, 1.0]], "signs": [1, -1]}))
    assert main(["flow", str(path), "--lam", "1e-10"]) == 2
    err = capsys.readouterr().err
    assert err == f"relucheck: error: instance file {path}: input 1 is zero: a zero input is on every neuron's kink (drop it)\n"


def test_an_integer_longer_than_any_float64_is_refused_by_its_length(tmp_path):
    # Python's 4300-digit limit answered "use sys.set_int_max_str_digits() to increase the limit"
    path = tmp_path / "big.json"
    path.write_text('{"inputs": [[1' + "0" * 5000 + ']], "labels": [1]}')
    with pytest.raises(RelucheckInputError, match=r"big.json: the integer 100000000000… has 5001 digits; numbers must "
                                                  r"fit float64"):
        read_json_file(path)
    path.write_text('{"n": -' + "9" * 400 + "}")
    assert read_json_file(path) == {"n": -int("9" * 400)}  # up to 400 digits: read, then the schema judges the value
