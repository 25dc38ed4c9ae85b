/// Splits a full name.
///
/// # Arguments
/// * `name` - The full name, given name first.
fn split_name(name: String) -> Parts {
    Parts::of(&name)
}
/// The Agent Spec tool `split_name`, from [`split_name`]: its description and a call from JSON arguments (`RustTool`).
#[derive(
    ::core::clone::Clone,
    ::core::marker::Copy,
    ::core::fmt::Debug,
    ::core::default::Default
)]
struct SplitNameTool;
impl SplitNameTool {
    /// The tool's name.
    const NAME: &'static str = "split_name";
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
                        SplitNameTool::NAME,
                        ::agentspec_types::tool::ToolKind::Server,
                    )
                    .description(::core::option::Option::Some("Splits a full name."))
                    .requires_confirmation(true)
                    .input::<
                        String,
                    >(
                        "full_name",
                        ::core::option::Option::Some("The full name, given name first."),
                    )
                    .output_fields::<Parts>()
                    .build()
            })
            .as_ref()
    }
}
#[automatically_derived]
impl ::agentspec_types::tool::RustTool for SplitNameTool {
    fn spec(
        &self,
    ) -> ::core::result::Result<
        &'static ::agentspec_types::tool::ToolSpec,
        &'static ::agentspec_types::tool::SpecError,
    > {
        SplitNameTool::__spec()
    }
    fn call(
        &self,
        args: ::agentspec_types::tool::__private::serde_json::Value,
    ) -> impl ::core::future::Future<
        Output = ::agentspec_types::tool::ToolResult,
    > + ::core::marker::Send {
        async move {
            let mut __args = match ::agentspec_types::tool::__private::Arguments::new(
                SplitNameTool::NAME,
                args,
            ) {
                ::core::result::Result::Ok(a) => a,
                ::core::result::Result::Err(e) => return ::core::result::Result::Err(e),
            };
            let __arg0 = __args.required::<String>("full_name");
            let __rest = __args.finish(&["full_name"]);
            #[allow(unused_parens, reason = "one input makes a parenthesized pattern")]
            let (__arg0) = match (__arg0, __rest) {
                (::core::result::Result::Ok(__arg0), ::core::result::Result::Ok(())) => {
                    (__arg0)
                }
                (__arg0, __rest) => {
                    return ::core::result::Result::Err(
                        ::agentspec_types::tool::__private::fail(
                            SplitNameTool::NAME,
                            [__arg0.err()],
                            __rest,
                        ),
                    );
                }
            };
            ::agentspec_types::tool::__private::output(
                SplitNameTool::NAME,
                &split_name(__arg0),
            )
        }
    }
}
