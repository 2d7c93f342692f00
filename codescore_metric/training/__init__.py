"""UniCE training: every labelled example trains all three input formats (the paper's L_Uni)."""
