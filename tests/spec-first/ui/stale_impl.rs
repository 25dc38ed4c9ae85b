// The weather tools implemented for the first version of their document, compiled against
// the second: `get_weather`'s input `city` is now `place`, `convert`'s `amount` is now a
// string, and a tool `forecast_days` was added.
use agentspec_spec_first_tests::weather_tools_v2::{Tools, tools};
use agentspec_types::tool::BoxError;

struct Weather;

impl Tools for Weather {
    async fn get_weather(
        &self,
        args: tools::get_weather::Args,
    ) -> Result<tools::get_weather::Output, BoxError> {
        Err(format!("no forecast for {}", args.city).into())
    }

    async fn convert(&self, args: tools::convert::Args) -> Result<f64, BoxError> {
        Ok(args.amount * 2.0)
    }
}

fn main() {}
