/// Shows a notification to the user.
fn notify(level: &str, message: String) {}
/// The Agent Spec tool `notify-user`, from [`notify`]: its description and a call from JSON arguments (`RustTool`).
#[derive(
    ::core::clone::Clone,
    ::core::marker::Copy,
    ::core::fmt::Debug,
    ::core::default::Default
)]
struct NotifyTool;
impl NotifyTool {
    /// The tool's name.
    const NAME: &'static str = "notify-user";
    #[doc(hidden)]
    #[allow(non_snake_case, reason = "named after the argument, which may use capitals")]
    fn __default_level() -> ::std::string::String {
        <str as ::std::borrow::ToOwned>::to_owned("info")
    }
    #[doc(hidden)]
    fn __spec() -> ::core::result::Result<
        &'static agentspec::tool::ToolSpec,
        &'static agentspec::tool::SpecError,
    > {
        static SPEC: ::std::sync::OnceLock<
            ::core::result::Result<agentspec::tool::ToolSpec, agentspec::tool::SpecError>,
        > = ::std::sync::OnceLock::new();
        SPEC.get_or_init(|| {
                agentspec::tool::SpecBuilder::new(
                        NotifyTool::NAME,
                        agentspec::tool::ToolKind::Client,
                    )
                    .description(
                        ::core::option::Option::Some("Shows a notification to the user."),
                    )
                    .requires_confirmation(false)
                    .input_default::<
                        ::std::string::String,
                    >(
                        "level",
                        ::core::option::Option::None,
                        &NotifyTool::__default_level(),
                    )
                    .input::<String>("message", ::core::option::Option::None)
                    .build()
            })
            .as_ref()
    }
}
#[automatically_derived]
impl agentspec::tool::RustTool for NotifyTool {
    fn spec(
        &self,
    ) -> ::core::result::Result<
        &'static agentspec::tool::ToolSpec,
        &'static agentspec::tool::SpecError,
    > {
        NotifyTool::__spec()
    }
    fn call(
        &self,
        args: agentspec::tool::__private::serde_json::Value,
    ) -> impl ::core::future::Future<
        Output = agentspec::tool::ToolResult,
    > + ::core::marker::Send {
        async move {
            let mut __args = match agentspec::tool::__private::Arguments::new(
                NotifyTool::NAME,
                args,
            ) {
                ::core::result::Result::Ok(a) => a,
                ::core::result::Result::Err(e) => return ::core::result::Result::Err(e),
            };
            let __arg0 = __args
                .or_else::<::std::string::String>("level", NotifyTool::__default_level);
            let __arg1 = __args.required::<String>("message");
            let __rest = __args.finish(&["level", "message"]);
            #[allow(unused_parens, reason = "one input makes a parenthesized pattern")]
            let (__arg0, __arg1) = match (__arg0, __arg1, __rest) {
                (
                    ::core::result::Result::Ok(__arg0),
                    ::core::result::Result::Ok(__arg1),
                    ::core::result::Result::Ok(()),
                ) => (__arg0, __arg1),
                (__arg0, __arg1, __rest) => {
                    return ::core::result::Result::Err(
                        agentspec::tool::__private::fail(
                            NotifyTool::NAME,
                            [__arg0.err(), __arg1.err()],
                            __rest,
                        ),
                    );
                }
            };
            {
                let () = notify(&__arg0, __arg1);
                ::core::result::Result::Ok(
                    agentspec::tool::__private::serde_json::Value::Null,
                )
            }
        }
    }
}
