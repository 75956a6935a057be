"""The mock's HTTP plumbing: middleware, server limits, routing, bodies, its OpenAPI."""
