# generated from openapi/cortex_gs.yaml by make generate; do not edit
"""Contains endpoint functions for accessing the API"""
