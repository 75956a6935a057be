"""Stand-in for the published arctic-platform's verl integration, as a user installs it
(0.1.4, or the current sources): only what the verl plugin and backend touch. It has no
`rl` package, as when the on-prem extras are missing, so `arctic_platform.rl` comes from
arctic-rl's import hook."""
