"""arctic-rl: contract-first SDK for serverless RL training on Cortex GS."""
