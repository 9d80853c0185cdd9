//! Go `text/template`, with the Sprig functions KubeMod exposes, over JSON values.
