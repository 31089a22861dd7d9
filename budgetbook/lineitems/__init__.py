"""Line items: one module each (plan section, reference rule, sheet builder); `registry` lists them."""
