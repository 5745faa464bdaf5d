const config = { serverExternalPackages: ["pg"] };
export default config;
