# generated from openapi/cortex_gs.yaml by make generate; do not edit
"""Contains methods for accessing the API"""
