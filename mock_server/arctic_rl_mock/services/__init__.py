"""The mock's behaviour behind the routes: jobs, requests, chunk groups, the worker."""
