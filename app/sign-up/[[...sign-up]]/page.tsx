import { SignUp } from "@clerk/nextjs";
import { clerkPublishableKey, MaybeClerk, NotConfigured } from "../../dashboard/ui/clerk";

export const dynamic = "force-dynamic";
export const metadata = { title: "Sign up" };

export default function SignUpPage() {
  if (!clerkPublishableKey()) return <NotConfigured />;
  return (
    <MaybeClerk>
      <main className="center">
        <SignUp path="/sign-up" routing="path" signInUrl="/sign-in" fallbackRedirectUrl="/dashboard" />
      </main>
    </MaybeClerk>
  );
}
