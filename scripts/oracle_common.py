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
