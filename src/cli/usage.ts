export const USAGE = `usage: campus-sso <command> [options]

commands:
  serve                                          start the server (applies migrations first)
  migrate                                        apply database migrations and exit
  user add --uin N --group G --password-stdin    create a user (G: admin, member or user);
                                                 the password is read from standard input
  app add --name N --emoji E --redirect-uri U [--redirect-uri U2 ...]
                                                 register an OAuth application; prints
                                                 {"client_id","client_secret"} as JSON
  import-campux --sqlite FILE                    import users and apps from the previous system
  keys rotate                                    make a new id_token signing key pair active; the old
                                                 keys stay published until their id_tokens expire
  keys list                                      the signing keys, one JSON line each: kid, alg,
                                                 created_at, status (active, retiring, retired)

Configuration comes from environment variables: PORT, HOST, BASE_URL, DATABASE_URL, ACCESS_TOKEN_TTL,
SECRET_KEY (required with PostgreSQL) or SECRET_KEY_FILE, ...
(see README.md).`;

/** Bad arguments: the message and the usage on stderr, exit status 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
