/// Shows a notification to the user.
#[tool(client, name = "notify-user", crate = "agentspec")]
fn notify(#[arg(default = "info")] level: &str, message: String) {}
