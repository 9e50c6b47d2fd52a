/** `oidc-provider` ships no type declarations; the fixture uses a small part of it. */
declare module "oidc-provider" {
  const Provider: any;
  type Provider = any;
  export default Provider;
}
