/// Gets the weather forecast for a city.
#[tool]
pub async fn get_weather(
    /// Name of the city, e.g. "Zurich".
    city: &str,
    /// Temperature unit.
    #[arg(default = Unit::Celsius)]
    unit: Unit,
    days: Option<u8>,
) -> Result<Forecast, WeatherError> {
    forecast(city, unit, days).await
}
