"""Small stand-ins for SkyRL and verl: they call the client exactly as the frameworks do."""
