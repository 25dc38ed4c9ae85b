//! "Did you mean" suggestions for misspelt names.

/// The closest of `candidates` to `word` (edit distance at most a third of its length).
pub fn closest<'a>(word: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    // no name Agent Spec defines is this long: a longer word has no near one (and the edit
    // distance would cost its length times each candidate's)
    if word.len() > 100 {
        return None;
    }
    let limit = (word.chars().count() / 3).max(2);
    candidates
        .filter(|c| *c != word)
        .map(|c| (edit_distance(&word.to_lowercase(), &c.to_lowercase()), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, c)| (*d, *c))
        .map(|(_, c)| c)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous + usize::from(ca != *cb);
            previous = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(previous + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_the_closest_name() {
        let names = ["ToolNode", "StartNode", "EndNode", "LlmNode"];
        assert_eq!(closest("ToolNod", names.iter().copied()), Some("ToolNode"));
        assert_eq!(
            closest("Satrtnode", names.iter().copied()),
            Some("StartNode")
        );
        assert_eq!(closest("Completely", names.iter().copied()), None);
    }
}
