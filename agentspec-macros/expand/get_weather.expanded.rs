/// Gets the weather forecast for a city.
pub async fn get_weather(
    city: &str,
    unit: Unit,
    days: Option<u8>,
) -> Result<Forecast, WeatherError> {
    forecast(city, unit, days).await
}
/// The Agent Spec tool `get_weather`, from [`get_weather`]: its description and a call from JSON arguments (`RustTool`).
#[derive(
    ::core::clone::Clone,
    ::core::marker::Copy,
    ::core::fmt::Debug,
    ::core::default::Default
)]
pub struct GetWeatherTool;
impl GetWeatherTool {
    /// The tool's name.
    pub const NAME: &'static str = "get_weather";
    #[doc(hidden)]
    #[allow(non_snake_case, reason = "named after the argument, which may use capitals")]
    fn __default_unit() -> Unit {
        Unit::Celsius
    }
    #[doc(hidden)]
    fn __spec() -> ::core::result::Result<
        &'static ::agentspec_types::tool::ToolSpec,
        &'static ::agentspec_types::tool::SpecError,
    > {
        static SPEC: ::std::sync::OnceLock<
            ::core::result::Result<
                ::agentspec_types::tool::ToolSpec,
                ::agentspec_types::tool::SpecError,
            >,
        > = ::std::sync::OnceLock::new();
        SPEC.get_or_init(|| {
                ::agentspec_types::tool::SpecBuilder::new(
                        GetWeatherTool::NAME,
                        ::agentspec_types::tool::ToolKind::Server,
                    )
                    .description(
                        ::core::option::Option::Some(
                            "Gets the weather forecast for a city.",
                        ),
                    )
                    .requires_confirmation(false)
                    .input::<
                        ::std::string::String,
                    >(
                        "city",
                        ::core::option::Option::Some(
                            "Name of the city, e.g. \"Zurich\".",
                        ),
                    )
                    .input_default::<
                        Unit,
                    >(
                        "unit",
                        ::core::option::Option::Some("Temperature unit."),
                        &GetWeatherTool::__default_unit(),
                    )
                    .input_optional::<Option<u8>>("days", ::core::option::Option::None)
                    .output::<Forecast>("tool_output", ::core::option::Option::None)
                    .build()
            })
            .as_ref()
    }
}
#[automatically_derived]
impl ::agentspec_types::tool::RustTool for GetWeatherTool {
    fn spec(
        &self,
    ) -> ::core::result::Result<
        &'static ::agentspec_types::tool::ToolSpec,
        &'static ::agentspec_types::tool::SpecError,
    > {
        GetWeatherTool::__spec()
    }
    fn call(
        &self,
        args: ::agentspec_types::tool::__private::serde_json::Value,
    ) -> impl ::core::future::Future<
        Output = ::agentspec_types::tool::ToolResult,
    > + ::core::marker::Send {
        async move {
            let mut __args = match ::agentspec_types::tool::__private::Arguments::new(
                GetWeatherTool::NAME,
                args,
            ) {
                ::core::result::Result::Ok(a) => a,
                ::core::result::Result::Err(e) => return ::core::result::Result::Err(e),
            };
            let __arg0 = __args.required::<::std::string::String>("city");
            let __arg1 = __args.or_else::<Unit>("unit", GetWeatherTool::__default_unit);
            let __arg2 = __args.optional::<Option<u8>>("days");
            let __rest = __args.finish(&["city", "unit", "days"]);
            #[allow(unused_parens, reason = "one input makes a parenthesized pattern")]
            let (__arg0, __arg1, __arg2) = match (__arg0, __arg1, __arg2, __rest) {
                (
                    ::core::result::Result::Ok(__arg0),
                    ::core::result::Result::Ok(__arg1),
                    ::core::result::Result::Ok(__arg2),
                    ::core::result::Result::Ok(()),
                ) => (__arg0, __arg1, __arg2),
                (__arg0, __arg1, __arg2, __rest) => {
                    return ::core::result::Result::Err(
                        ::agentspec_types::tool::__private::fail(
                            GetWeatherTool::NAME,
                            [__arg0.err(), __arg1.err(), __arg2.err()],
                            __rest,
                        ),
                    );
                }
            };
            match get_weather(&__arg0, __arg1, __arg2).await {
                ::core::result::Result::Ok(value) => {
                    ::agentspec_types::tool::__private::output(
                        GetWeatherTool::NAME,
                        &value,
                    )
                }
                ::core::result::Result::Err(error) => {
                    ::core::result::Result::Err(
                        ::agentspec_types::tool::__private::execution(
                            GetWeatherTool::NAME,
                            error,
                        ),
                    )
                }
            }
        }
    }
}
