"""Misère algebra: canonical trees and reduced canonical trees (RCTs)."""
