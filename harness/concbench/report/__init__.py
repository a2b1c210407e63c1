"""Presentation shared by the terminal, the exports and the reports."""
