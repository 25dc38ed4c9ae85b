//! Rust identifiers from Agent Spec names, which may hold any character.

use std::collections::HashSet;

use heck::ToSnakeCase;

/// Names given so far in one scope; each new one is distinct from them.
#[derive(Debug, Default)]
pub(crate) struct Names {
    taken: HashSet<String>,
}

impl Names {
    /// A snake_case identifier for `name`, distinct from those given before (`name_2`, …).
    pub(crate) fn unique(&mut self, name: &str) -> String {
        let base = snake_ident(name);
        let mut candidate = base.clone();
        let mut n = 2;
        while self.taken.contains(&candidate) {
            candidate = format!("{base}_{n}");
            n += 1;
        }
        self.taken.insert(candidate.clone());
        candidate
    }
}

/// `name` as a snake_case identifier: letters (any script, as Rust allows), digits and `_`
/// only, never a keyword, never starting with a digit, never empty.
pub(crate) fn snake_ident(name: &str) -> String {
    let cleaned: String = name
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { ' ' })
        .collect();
    let mut ident: String = cleaned
        .to_snake_case()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    if ident.is_empty() {
        ident = "unnamed".into();
    }
    if ident.starts_with(|c: char| c.is_numeric()) {
        ident.insert(0, '_');
    }
    if syn::parse_str::<syn::Ident>(&ident).is_err() || ident == "self" || ident == "super" {
        ident.push('_');
    }
    ident
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_become_distinct_snake_case_identifiers() {
        assert_eq!(snake_ident("get_weather"), "get_weather");
        assert_eq!(snake_ident("GetWeather"), "get_weather");
        assert_eq!(snake_ident("get weather (v2)"), "get_weather_v2");
        assert_eq!(snake_ident("2fa check"), "_2fa_check");
        assert_eq!(snake_ident("type"), "type_");
        assert_eq!(snake_ident("Self"), "self_");
        assert_eq!(snake_ident("→"), "unnamed");
        assert_eq!(snake_ident("météo"), "météo");
        let mut names = Names::default();
        assert_eq!(names.unique("getWeather"), "get_weather");
        assert_eq!(names.unique("get_weather"), "get_weather_2");
        assert_eq!(names.unique("get-weather"), "get_weather_3");
    }
}
