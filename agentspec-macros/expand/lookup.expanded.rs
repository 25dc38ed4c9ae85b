/// Looks a customer up by email.
async fn lookup(db: &Database, email: &str) -> Result<Option<Customer>, DbError> {
    db.find(email).await
}
/// The Agent Spec tool `lookup`, from [`lookup`]: its description and a call from JSON arguments (`RustTool`).
#[derive(::core::clone::Clone)]
struct LookupTool {
    state: ::std::sync::Arc<Database>,
}
impl LookupTool {
    /// The tool, holding the state its function borrows on every call (a value,
    /// or an `Arc` shared with other tools).
    fn new(state: impl ::core::convert::Into<::std::sync::Arc<Database>>) -> Self {
        LookupTool { state: state.into() }
    }
}
impl ::core::fmt::Debug for LookupTool {
    fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
        f.debug_struct("LookupTool").finish_non_exhaustive()
    }
}
impl LookupTool {
    /// The tool's name.
    const NAME: &'static str = "lookup";
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
                        LookupTool::NAME,
                        ::agentspec_types::tool::ToolKind::Server,
                    )
                    .description(
                        ::core::option::Option::Some("Looks a customer up by email."),
                    )
                    .requires_confirmation(false)
                    .input::<
                        ::std::string::String,
                    >("email", ::core::option::Option::Some("The customer's email."))
                    .output::<
                        Option<Customer>,
                    >("tool_output", ::core::option::Option::None)
                    .build()
            })
            .as_ref()
    }
}
#[automatically_derived]
impl ::agentspec_types::tool::RustTool for LookupTool {
    fn spec(
        &self,
    ) -> ::core::result::Result<
        &'static ::agentspec_types::tool::ToolSpec,
        &'static ::agentspec_types::tool::SpecError,
    > {
        LookupTool::__spec()
    }
    fn call(
        &self,
        args: ::agentspec_types::tool::__private::serde_json::Value,
    ) -> impl ::core::future::Future<
        Output = ::agentspec_types::tool::ToolResult,
    > + ::core::marker::Send {
        let __state = ::std::sync::Arc::clone(&self.state);
        async move {
            let mut __args = match ::agentspec_types::tool::__private::Arguments::new(
                LookupTool::NAME,
                args,
            ) {
                ::core::result::Result::Ok(a) => a,
                ::core::result::Result::Err(e) => return ::core::result::Result::Err(e),
            };
            let __arg0 = __args.required::<::std::string::String>("email");
            let __rest = __args.finish(&["email"]);
            #[allow(unused_parens, reason = "one input makes a parenthesized pattern")]
            let (__arg0) = match (__arg0, __rest) {
                (::core::result::Result::Ok(__arg0), ::core::result::Result::Ok(())) => {
                    (__arg0)
                }
                (__arg0, __rest) => {
                    return ::core::result::Result::Err(
                        ::agentspec_types::tool::__private::fail(
                            LookupTool::NAME,
                            [__arg0.err()],
                            __rest,
                        ),
                    );
                }
            };
            match lookup(&*__state, &__arg0).await {
                ::core::result::Result::Ok(value) => {
                    ::agentspec_types::tool::__private::output(LookupTool::NAME, &value)
                }
                ::core::result::Result::Err(error) => {
                    ::core::result::Result::Err(
                        ::agentspec_types::tool::__private::execution(
                            LookupTool::NAME,
                            error,
                        ),
                    )
                }
            }
        }
    }
}
