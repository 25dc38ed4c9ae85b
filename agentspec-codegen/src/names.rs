//! Rust names for schema names.

/// `"retry_policy"` → `"RetryPolicy"`, `"verify-ca"` → `"VerifyCa"`.
pub(crate) fn pascal_case(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut upper = true;
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            if upper {
                out.push(c.to_ascii_uppercase());
            } else {
                out.push(c);
            }
            upper = false;
        } else {
            upper = true;
        }
    }
    out
}

/// The Rust variant name of a string enum value: `"ON_DEMAND"` → `OnDemand`,
/// `"openai_responses"` → `OpenaiResponses`, `"S256"` → `S256`, `"25.4.1"` → `V25_4_1`.
pub(crate) fn variant_name(value: &str) -> String {
    if value.starts_with(|c: char| c.is_ascii_digit()) {
        return format!(
            "V{}",
            value.replace(|c: char| !c.is_ascii_alphanumeric(), "_")
        );
    }
    let all_upper = value.chars().all(|c| !c.is_ascii_lowercase());
    let lowered = if all_upper && value.contains('_')
        || value.chars().all(|c| c.is_ascii_uppercase())
            && value.len() > 1
            && !value.chars().any(|c| c.is_ascii_digit())
    {
        value.to_ascii_lowercase()
    } else {
        value.to_owned()
    };
    pascal_case(&lowered)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_enum_values_in_pascal_case() {
        assert_eq!(variant_name("ON_DEMAND"), "OnDemand");
        assert_eq!(variant_name("openai_responses"), "OpenaiResponses");
        assert_eq!(variant_name("S256"), "S256");
        assert_eq!(variant_name("verify-ca"), "VerifyCa");
        assert_eq!(variant_name("25.4.1"), "V25_4_1");
        assert_eq!(variant_name("COHERE"), "Cohere");
        assert_eq!(variant_name("API_KEY"), "ApiKey");
        assert_eq!(variant_name("tcps"), "Tcps");
    }

    #[test]
    fn names_fields_in_pascal_case() {
        assert_eq!(pascal_case("retry_policy"), "RetryPolicy");
        assert_eq!(pascal_case("executor_name"), "ExecutorName");
    }
}
