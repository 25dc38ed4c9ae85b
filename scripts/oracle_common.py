"""What the pyagentspec oracles share: the values standing for a document's redacted
sensitive fields."""


def sensitive_refs(value, out):
    """The `<id>.<field>` placeholders of the redacted sensitive fields inside `value`."""
    if isinstance(value, dict):
        ref = value.get("$component_ref")
        if isinstance(ref, str) and "." in ref and len(value) == 1:
            out.add(ref)
        for v in value.values():
            sensitive_refs(v, out)
    elif isinstance(value, list):
        for v in value:
            sensitive_refs(v, out)
    return out


def placeholder_registry(document):
    """A `components_registry` for pyagentspec giving every redacted field of `document` a
    non-empty value (headers are mappings, the rest strings), so that it redacts them again."""
    return {
        r: ({"X-Placeholder": "v"} if r.endswith(".sensitive_headers") else "<placeholder>")
        for r in sensitive_refs(document, set())
    }


class Rejected(Exception):
    """pyagentspec refused a document: the validation or deserialization error it raised."""


def pyagentspec_load(load, *args, **kwargs):
    """`load(*args, **kwargs)` (a pyagentspec deserializer call), its refusal raised as
    `Rejected`. Refusals are what pyagentspec raises for a document it does not accept: a
    `ValueError` (Pydantic's `ValidationError` is one; so are its deserializer's own errors and
    an unknown version) or the `KeyError` of a reference it cannot resolve. Anything else (an
    `ImportError`, a `TypeError` from a bug in the calling script) is not a refusal and is
    raised as it is, so that it fails the run."""
    try:
        return load(*args, **kwargs)
    except ValueError as e:
        raise Rejected(f"{type(e).__name__}: {' '.join(str(e).split())}") from e
    except KeyError as e:
        if not str(e).startswith("'Missing reference for ID"):
            raise
        raise Rejected(f"KeyError: {e}") from e


def read_expected(path):
    """An expected-outcomes file -> {name: outcome}: one `<name>  <outcome>` a line (two spaces
    or more between them), `#` comments and blank lines ignored; a name listed twice is an
    error."""
    expected = {}
    for number, line in enumerate(open(path), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        name, sep, outcome = line.strip().partition("  ")
        if not sep or not outcome.strip() or name in expected:
            raise SystemExit(f"{path}:{number}: expected `<name>  <outcome>` once per name, got {line.strip()!r}")
        expected[name] = outcome.strip()
    return expected


def outcome_changes(expected, found, path):
    """One line for every name whose outcome is not the one `expected` (read from `path`)
    gives it, that `found` has and `expected` lacks, or the other way round; empty when the
    two are the same."""
    lines = []
    for name in sorted(set(expected) | set(found)):
        if name not in found:
            lines.append(f"GONE    {name}: {path} expects `{expected[name]}`, but it is not there (delete its line)")
        elif name not in expected:
            lines.append(f"NEW     {name}: `{found[name]}`, not in {path} (add the line `{name}  {found[name]}`)")
        elif found[name] != expected[name]:
            lines.append(f"CHANGED {name}: {path} expects `{expected[name]}`, now `{found[name]}`")
    return lines
