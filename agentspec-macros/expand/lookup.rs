/// Looks a customer up by email.
#[tool]
async fn lookup(
    /// The database, shared by every call.
    #[state]
    db: &Database,
    /// The customer's email.
    email: &str,
) -> Result<Option<Customer>, DbError> {
    db.find(email).await
}
