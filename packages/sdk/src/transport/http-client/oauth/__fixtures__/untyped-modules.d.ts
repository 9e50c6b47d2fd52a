/** `oidc-provider` ships no type declarations; the fixture uses a small part of it. */
declare module "oidc-provider" {
  // biome-ignore lint: an untyped third-party class, used only by the test fixture
  const Provider: any;
  type Provider = any;
  export default Provider;
}
