"""Adapters that let existing RL frameworks select Cortex from their own yaml."""
