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

/// Words an identifier cannot be in edition 2024 (`gen` included), besides those syn knows.
const RESERVED: [&str; 4] = ["gen", "self", "super", "crate"];

/// `name` as a snake_case identifier: characters Rust allows in identifiers (Unicode's
/// XID, any script) and `_` only, never a keyword, never starting with a digit, never
/// empty.
pub(crate) fn snake_ident(name: &str) -> String {
    let cleaned: String = name
        .chars()
        .map(|c| {
            if unicode_ident::is_xid_continue(c) && c != '_' {
                c
            } else {
                ' '
            }
        })
        .collect();
    let mut ident: String = cleaned
        .to_snake_case()
        .chars()
        .filter(|c| unicode_ident::is_xid_continue(*c))
        .collect();
    if ident.is_empty() {
        ident = "unnamed".into();
    }
    if !ident.starts_with(|c: char| unicode_ident::is_xid_start(c) || c == '_') {
        ident.insert(0, '_');
    }
    if syn::parse_str::<syn::Ident>(&ident).is_err() || RESERVED.contains(&ident.as_str()) {
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
        assert_eq!(snake_ident("area m²"), "area_m");
        assert_eq!(snake_ident("co₂"), "co");
        assert_eq!(snake_ident("gen"), "gen_");
        assert_eq!(snake_ident("__x__"), "x");
        let mut names = Names::default();
        assert_eq!(names.unique("getWeather"), "get_weather");
        assert_eq!(names.unique("get_weather"), "get_weather_2");
        assert_eq!(names.unique("get-weather"), "get_weather_3");
    }
}
